/** Options shared by the generation metrics. */
export interface GenerationMetricOptions {
  /** Overrides the metric's name (the key in results). */
  readonly name?: string;
}
