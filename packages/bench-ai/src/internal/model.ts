import { createHash } from "node:crypto";
import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";

/** `"<provider>:<modelId>"` for a model object, the id itself for a model id string. */
export function modelName(
  where: string,
  model: unknown,
  method: "doGenerate" | "doEmbed",
  example: string,
): string {
  if (typeof model === "string" && model.trim() !== "") return model;
  if (typeof model === "object" && model !== null) {
    const m = model as { provider?: unknown; modelId?: unknown; [k: string]: unknown };
    if (
      typeof m.provider === "string" &&
      typeof m.modelId === "string" &&
      typeof m[method] === "function"
    ) {
      return `${m.provider}:${m.modelId}`;
    }
  }
  throw new ConfigurationError(
    `${where}: expected an AI SDK ${method === "doGenerate" ? "language" : "embedding"} model (e.g. ${example}) or a model id string, found ${describeValue(model)}`,
    { kind: "invalid-option", option: "model" },
  );
}

/**
 * The cache key: the model's name, plus a digest of the settings that change its replies when
 * any differs from the default, so that two judges of one model with different system prompts
 * never share cached replies.
 */
export function settingsKey(name: string, settings: readonly unknown[]): string {
  if (settings.every((s) => s === undefined)) return name;
  const digest = createHash("sha256").update(JSON.stringify(settings)).digest("hex");
  return `${name}#${digest.slice(0, 16)}`;
}
