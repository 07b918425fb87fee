import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

// Every test runs twice: against AI SDK 6 (the dev dependency `ai`) and AI SDK 5 (`ai-v5`, with
// the provider of its generation), the two majors of the peer range that run on Node 20.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      projects: [
        { extends: true, test: { name: "ai6" } },
        {
          extends: true,
          test: { name: "ai5", typecheck: { enabled: false } },
          resolve: {
            alias: [
              { find: /^ai$/, replacement: "ai-v5" },
              { find: /^ai\/test$/, replacement: "ai-v5/test" },
              {
                find: /^@ai-sdk\/openai-compatible$/,
                replacement: "@ai-sdk/openai-compatible-v1",
              },
            ],
          },
        },
      ],
    },
  }),
);
