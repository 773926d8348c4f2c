/* global fetch, AbortSignal */
// A command agent for the proxy tests: asks its model once through OPENAI_BASE_URL (the run's proxy), then
// tries the fake upstream's own address and an address off this machine, and prints what happened.
const base = process.env.OPENAI_BASE_URL;
const r = await fetch(`${base}/chat/completions`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
  body: JSON.stringify({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "resolve it" }] }),
});
const text = await r.text();
console.log(`model: ${r.status} ${text.includes("[DONE]") ? "streamed" : text.slice(0, 200)}`);
console.log(`key: ${process.env.OPENAI_API_KEY}`);
for (const [name, url] of [["upstream", process.env.GITGOOD_TEST_UPSTREAM], ["outside", "http://192.0.2.1:80/"]]) {
  try {
    const direct = await fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(10_000) });
    console.log(`${name}: reached ${direct.status}`);
  } catch (e) {
    console.log(`${name}: failed ${e.cause?.code ?? e.name}`);
  }
}
