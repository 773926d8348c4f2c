/* global fetch */
// A command agent standing in for a CLI-agent preset on a queue worker: asks its model once through
// OPENAI_BASE_URL (the worker's recording proxy) with the key it was given, and prints the answer's status.
const r = await fetch(`${process.env.OPENAI_BASE_URL}/chat/completions`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
  body: JSON.stringify({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "resolve it" }] }),
});
console.log(`model: ${r.status}`);
