// The option checks every integration shares live in core (one wording, one refusal of unknown
// options); the local name `describe` stays so the call sites read as before.
export {
  describeOptionValue as describe,
  numberOption,
  objectOption,
  optionsObject,
  stringOption,
} from "@fastrag/bench-core/internal";
