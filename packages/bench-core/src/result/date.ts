// The date parser of result files: `created_at` read as ISO-8601, strictly.
import { ConfigurationError } from "../errors.js";
import { shortText } from "../internal/text.js";

const ISO_DATE_RE =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?([Zz]|[+-]\d{2}(?::?\d{2}(?::\d{2}(?:\.\d+)?)?)?)?)?$/;
/** A zone offset: `+01`, `+0100`, `+01:00`, or with seconds as Python writes them (`+00:19:32`). */
const ZONE_RE = /^([+-])(\d{2})(?::?(\d{2})(?::(\d{2})(\.\d+)?)?)?$/;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * Reads `created_at` as ISO-8601 (RFC 3339), strictly, so that a file means the same instant on
 * every machine: `new Date(text)` reads a date-time without a zone as the reading machine's local
 * time, rolls impossible dates over (February 31 → March 3) and accepts free text ("Jan 1 2026").
 *
 * - With a zone (`Z`, `+01:00`, `+0100`, `+01`, or with seconds, `+00:19:32`, as Python writes
 *   a local-mean-time offset): that instant. `save` writes `toISOString()`
 *   (`Z`, and `±YYYYYY` years beyond 0000–9999); Python's `isoformat()` of an aware datetime
 *   writes `+00:00` and microseconds, read to the millisecond.
 * - Without a zone (`2026-01-01T10:00:00`, as Python's `isoformat()` writes a naive datetime, or
 *   with a space, as `str(datetime)` does): read as UTC. The writer's zone is unknown; UTC is what
 *   `datetime.utcnow()` meant, and the same instant on every machine.
 * - A date alone (`2026-01-01`): midnight UTC, as ECMAScript reads it.
 *
 * The time may stop after the hour (`2026-01-02T03+00:00`, Python's `isoformat(timespec="hours")`)
 * or the minute. Every field must exist as written: month 01–12, a day the month has, hour 00–23, minute and
 * second 00–59.
 */
export function parseCreatedAt(raw: string, source: string): Date {
  const bad = (why: string) =>
    new ConfigurationError(
      `${source}: created_at: expected an ISO-8601 date, found ${JSON.stringify(shortText(raw, 60))}${why}`,
      { kind: "invalid-input", path: source, field: "created_at" },
    );
  const m = ISO_DATE_RE.exec(raw);
  if (m === null || m[1] === "-000000") throw bad("");
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  if (month < 1 || month > 12) throw bad(`, whose month ${m[2]} does not exist (01–12)`);
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) {
    throw bad(`, whose day ${m[3]} does not exist (${MONTHS[month - 1]} ${year} has ${days} days)`);
  }
  if (hour > 23) throw bad(`, whose hour ${m[4]} does not exist (00–23)`);
  if (minute > 59) throw bad(`, whose minute ${m[5]} does not exist (00–59)`);
  if (second > 59) throw bad(`, whose second ${m[6]} does not exist (00–59)`);
  let offsetMs = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== "Z" && zone !== "z") {
    const z = ZONE_RE.exec(zone);
    const oh = Number(z?.[2]);
    const om = z?.[3] === undefined ? 0 : Number(z[3]);
    const os = z?.[4] === undefined ? 0 : Number(z[4]);
    if (z === null || oh > 23 || om > 59 || os > 59)
      throw bad(`, whose zone offset ${zone} does not exist`);
    const fraction = z[5] === undefined ? 0 : Number(z[5]);
    offsetMs = (z[1] === "-" ? -1 : 1) * Math.round((oh * 3600 + om * 60 + os + fraction) * 1000);
  }
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms - offsetMs);
  if (Number.isNaN(date.getTime())) throw bad(", which is outside the range of dates");
  return date;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
