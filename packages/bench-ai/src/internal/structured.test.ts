import { APICallError, UnsupportedFunctionalityError } from "ai";
import { describe, expect, it } from "vitest";
import { isStructuredOutputUnsupported, lacksStructuredOutput } from "./structured.js";

function http(statusCode: number, message: string, responseBody?: string): APICallError {
  return new APICallError({
    message,
    url: "http://127.0.0.1/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    ...(responseBody === undefined ? {} : { responseBody }),
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

describe('isStructuredOutputUnsupported: the errors that make "auto" ask in text', () => {
  const cases: [string, unknown, boolean][] = [
    [
      "OpenAI: json_schema not supported with this model",
      http(
        400,
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      ),
      true,
    ],
    [
      "a pydantic server refusing the field (422, said in the body)",
      http(
        422,
        "Unprocessable Entity",
        '{"detail":[{"type":"extra_forbidden","loc":["body","response_format"],"msg":"Extra inputs are not permitted"}]}',
      ),
      true,
    ],
    [
      "501: structured output not implemented",
      http(501, "Structured outputs are not implemented"),
      true,
    ],
    [
      "inside a RetryError (lastError)",
      { name: "AI_RetryError", lastError: http(400, "response_format json_schema is unsupported") },
      true,
    ],
    [
      "UnsupportedFunctionalityError about JSON",
      new UnsupportedFunctionalityError({ functionality: "JSON response format" }),
      true,
    ],
    [
      "UnsupportedFunctionalityError about something else",
      new UnsupportedFunctionalityError({ functionality: "image parts" }),
      false,
    ],
    [
      "a schema the provider cannot enforce (strict mode)",
      http(
        400,
        "Invalid schema for response_format 'verdicts': In context=('properties', 'verdicts'), 'minItems' is not permitted.",
      ),
      false,
    ],
    ["a 400 about something else", http(400, "max_tokens is too large: 100000"), false],
    [
      "a 400 naming the feature without refusing it",
      http(400, "response_format: expected an object"),
      false,
    ],
    ["a 429", http(429, "response_format is not supported while rate limited"), false],
    ["a 500", http(500, "structured output is not supported right now"), false],
    ["a 401", http(401, "Incorrect API key provided"), false],
    ["an abort", new DOMException("This operation was aborted", "AbortError"), false],
    ["not an error", "response_format not supported", false],
  ];
  for (const [what, error, expected] of cases) {
    it(`${what}: ${expected}`, () => {
      expect(isStructuredOutputUnsupported(error)).toBe(expected);
    });
  }
});

describe("lacksStructuredOutput", () => {
  it("reads the model's supportsStructuredOutputs flag, false only when it says false", () => {
    expect(lacksStructuredOutput({ supportsStructuredOutputs: false })).toBe(true);
    expect(lacksStructuredOutput({ supportsStructuredOutputs: true })).toBe(false);
    expect(lacksStructuredOutput({})).toBe(false);
    expect(lacksStructuredOutput("openai/gpt-4o-mini")).toBe(false);
  });
});
