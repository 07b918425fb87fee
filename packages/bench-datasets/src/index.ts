/** Placeholder: filled by its issue. */
export const PACKAGE = "@fastrag/bench-datasets";
