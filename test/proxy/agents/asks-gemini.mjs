/* global fetch */
// A command agent for the proxy tests: asks its model once through the Gemini API at GOOGLE_GEMINI_BASE_URL
// (the run's proxy) with GEMINI_API_KEY, as Google's SDKs do, and prints what happened.
const base = process.env.GOOGLE_GEMINI_BASE_URL;
const r = await fetch(`${base}/v1beta/models/gemini-test:generateContent`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-goog-api-key": process.env.GEMINI_API_KEY ?? "" },
  body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "resolve it" }] }] }),
});
const answer = await r.json();
console.log(`gemini: ${r.status} ${answer.candidates?.[0]?.content?.parts?.[0]?.text ?? JSON.stringify(answer).slice(0, 200)}`);
console.log(`key: ${process.env.GEMINI_API_KEY}`);
