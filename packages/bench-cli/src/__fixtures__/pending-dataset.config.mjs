// A dataset still loading (and bound to fail) when the config is refused for its empty targets:
// one error, the config's, and no unhandled rejection after it.
import { QADataset } from "@fastrag/bench-datasets";
import { MRR } from "@fastrag/bench-metrics/retrieval";

export default {
  dataset: QADataset.load("no-such-dataset.jsonl"),
  metrics: [new MRR()],
  targets: {},
};
