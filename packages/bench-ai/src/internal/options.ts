// The option checks every integration shares live in core (one wording, one refusal of unknown
// options, one description of a found value).
export {
  describeValue,
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "@fastrag/bench-core/internal";
