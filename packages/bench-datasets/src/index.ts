export {
  COLUMN_ALIASES,
  type ColumnMapping,
  detectColumns,
  NATIVE_FIELD_NAMES,
  SAMPLE_FIELDS,
  type SampleField,
} from "./column-mapping.js";
export { CORPUS_ALIASES, loadCorpus, type Passage } from "./corpus.js";
export { HUGGING_FACE_VIEWER_URL, type HuggingFaceOptions } from "./hugging-face.js";
export { Predictions } from "./predictions.js";
export {
  type LoadOptions,
  type NativeSample,
  QADataset,
  type QADatasetInit,
  type TopicField,
  type TrecDatasetOptions,
} from "./qa-dataset.js";
export { TrecRun, type TrecRunLoadOptions } from "./trec-run.js";
