// Unparsable judge replies with and without structured output (issue 39): the script lives in
// bench-ai, whose dependencies (the AI SDK's OpenAI-compatible provider) it imports.
await import("../packages/bench-ai/bench/ai-structured.mjs");
