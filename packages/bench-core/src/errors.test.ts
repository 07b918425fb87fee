import { describe, expect, it } from "vitest";
import { ConfigurationError, FastragBenchError, MetricUnavailableError } from "./errors.js";
import { RunAbortedError } from "./run-errors.js";

describe("error family", () => {
  it("recognizes its errors by brand, across copies of the package", () => {
    const error = new ConfigurationError("bad", { cause: new Error("root") });
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(FastragBenchError.isInstance(error)).toBe(true);
    expect(RunAbortedError.isInstance(error)).toBe(false);
    expect((error.cause as Error).message).toBe("root");
    expect(error.name).toBe("ConfigurationError");

    // A copy from another install: a different class carrying the same global brand.
    const foreign = new Error("from another copy");
    Object.defineProperty(foreign, Symbol.for("fastrag.bench.error"), { value: true });
    Object.defineProperty(foreign, Symbol.for("fastrag.bench.error.configuration"), {
      value: true,
    });
    expect(ConfigurationError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof ConfigurationError).toBe(false);
  });

  it("rejects look-alikes and non-objects", () => {
    expect(ConfigurationError.isInstance(new Error("ConfigurationError"))).toBe(false);
    expect(ConfigurationError.isInstance(null)).toBe(false);
    expect(ConfigurationError.isInstance("ConfigurationError")).toBe(false);
    expect(FastragBenchError.isInstance(new RunAbortedError("x", null))).toBe(true);
  });

  it("tells each class from its siblings: a metric's catch must not swallow other errors", () => {
    const unavailable = new MetricUnavailableError("judge reply unparsable");
    expect(MetricUnavailableError.isInstance(unavailable)).toBe(true);
    expect(FastragBenchError.isInstance(unavailable)).toBe(true);
    expect(ConfigurationError.isInstance(unavailable)).toBe(false);
    expect(MetricUnavailableError.isInstance(new ConfigurationError("x"))).toBe(false);
    expect(MetricUnavailableError.isInstance(new RunAbortedError("x", null))).toBe(false);
    expect(MetricUnavailableError.isInstance(new FastragBenchError("x"))).toBe(false);
  });

  it("keeps the brand out of JSON", () => {
    expect(Object.keys(new ConfigurationError("x"))).not.toContain("Symbol(fastrag.bench.error)");
  });
});
