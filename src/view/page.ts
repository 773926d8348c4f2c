import { pageBody, SCRIPT, STYLE } from "../report/html-client.js";

/**
 * The viewer's page as its server sends it: the shared page (src/report/html-client.ts) with its style
 * and script allowed by the server's Content-Security-Policy through `nonce`; the data comes from the API.
 */
export function viewerPage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gitgood view</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body>
${pageBody("gitgood view", true)}<script nonce="${nonce}">${SCRIPT}</script>
</body></html>
`;
}
