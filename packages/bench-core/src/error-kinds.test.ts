import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sitesWithoutKind } from "../../../test-support/error-kinds.js";

describe("core's ConfigurationErrors", () => {
  it("each name their kind", () => {
    expect(sitesWithoutKind(fileURLToPath(new URL("./", import.meta.url)))).toEqual([]);
  });
});
