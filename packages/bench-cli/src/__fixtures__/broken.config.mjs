// A config whose top-level code throws: a one-line error, exit 2.
throw new Error("OPENAI_API_KEY is not set");
