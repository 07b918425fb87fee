import { describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample } from "../types.js";
import { RESULT_FORMAT } from "./codec.js";

const _samples: EvalSample[] = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i} "quoted" ünïcode`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));

describe("BenchmarkResult created_at", () => {
  const withDate = (createdAt: string): string =>
    JSON.stringify({
      format: RESULT_FORMAT,
      name: "d",
      created_at: createdAt,
      duration_s: 1,
      status: { successful: 0, errored: 0, incomplete: 0 },
      summary: {},
      higher_is_better: {},
      samples: [],
    });

  it("reads ISO-8601 as save and Python's isoformat() write it, a missing zone as UTC", () => {
    const tz = process.env.TZ;
    // Far from UTC, so that reading a zone-less time as local time would show.
    process.env.TZ = "America/New_York";
    try {
      // The zone took effect: a local 09:30 is 14:30 UTC here.
      expect(new Date(2026, 11, 2, 9, 30).toISOString()).toBe("2026-12-02T14:30:00.000Z");
      for (const [text, iso] of [
        ["2026-12-02T09:30:00.000Z", "2026-12-02T09:30:00.000Z"],
        // Python: datetime.now(timezone.utc).isoformat(), and an aware one elsewhere.
        ["2026-12-02T09:30:00.123456+00:00", "2026-12-02T09:30:00.123Z"],
        ["2026-12-02T10:30:00+01:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T04:00:00-0530", "2026-12-02T09:30:00.000Z"],
        // Python: datetime.utcnow().isoformat() and str(datetime), naive: read as UTC.
        ["2026-12-02T09:30:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T09:30:00.5", "2026-12-02T09:30:00.500Z"],
        ["2026-12-02 09:30:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T09:30", "2026-12-02T09:30:00.000Z"],
        // Python: isoformat(timespec="hours"), and offsets with seconds (zoneinfo's local mean
        // time before 1900, or a timedelta offset).
        ["2026-12-02T10+01:00", "2026-12-02T09:00:00.000Z"],
        ["1850-01-02T03:04:05+00:19:32", "1850-01-02T02:44:33.000Z"],
        ["2026-12-02T09:30:00-00:00:01.5", "2026-12-02T09:30:01.500Z"],
        // A date alone: midnight UTC.
        ["2026-12-02", "2026-12-02T00:00:00.000Z"],
        ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
        // Years that toISOString writes with six digits, and the years 0–99 (not 1900–1999).
        ["+010000-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"],
        ["0099-12-31T23:59:59.999Z", "0099-12-31T23:59:59.999Z"],
      ] as const) {
        expect(BenchmarkResult.parse(withDate(text), "d.json").createdAt.toISOString(), text).toBe(
          iso,
        );
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("refuses an impossible date instead of rolling it over, and free text", () => {
    for (const [text, why] of [
      ["2026-02-31T00:00:00Z", ", whose day 31 does not exist (February 2026 has 28 days)"],
      ["2025-02-29", ", whose day 29 does not exist (February 2025 has 28 days)"],
      ["2026-04-31T12:00:00", ", whose day 31 does not exist (April 2026 has 30 days)"],
      ["2026-13-01T00:00:00Z", ", whose month 13 does not exist (01–12)"],
      ["2026-01-01T24:00:00Z", ", whose hour 24 does not exist (00–23)"],
      ["2026-01-01T10:60:00Z", ", whose minute 60 does not exist (00–59)"],
      ["2026-01-01T10:00:60Z", ", whose second 60 does not exist (00–59)"],
      ["2026-01-01T10:00:00+24:00", ", whose zone offset +24:00 does not exist"],
      ["Jan 1 2026", ""],
      ["2026/01/01", ""],
      ["", ""],
    ] as const) {
      expect(() => BenchmarkResult.parse(withDate(text), "d.json"), text).toThrow(
        new ConfigurationError(
          `d.json: created_at: expected an ISO-8601 date, found ${JSON.stringify(text)}${why}`,
          { kind: "invalid-input", path: "d.json", field: "created_at" },
        ),
      );
    }
  });
});
