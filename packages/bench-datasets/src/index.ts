export { CORPUS_ALIASES, loadCorpus, type Passage } from "./formats/corpus.js";
export { HUGGING_FACE_VIEWER_URL, type HuggingFaceOptions } from "./formats/hugging-face.js";
export { Predictions } from "./formats/predictions.js";
export {
  type LoadOptions,
  type NativeSample,
  QADataset,
  type QADatasetInit,
} from "./qa-dataset.js";
export {
  COLUMN_ALIASES,
  type ColumnMapping,
  detectColumns,
  NATIVE_FIELD_NAMES,
  SAMPLE_FIELDS,
  type SampleField,
} from "./records/column-mapping.js";
export type { TopicField } from "./trec/topics.js";
export { TrecRun, type TrecRunLoadOptions } from "./trec/trec-run.js";
export type { TrecDatasetOptions } from "./trec/trec-samples.js";
