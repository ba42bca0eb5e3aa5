const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/**
 * The HTML of the API reference: Scalar's standalone script from this server, configured to fetch nothing else
 * (no web fonts from its CDN, no telemetry, no hosted AI or MCP buttons); the document comes from `specUrl` on the
 * same origin.
 */
export function referencePage(options: {
  title: string
  specUrl: string
  scriptUrl: string
  iconUrl?: string
}): string {
  // Its hosted extras (AI chat, MCP generation) call the vendor's services: off for a self-hosted reference.
  const configuration = {
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    theme: 'default',
    // The examples' credential headers as the server reads them: the scheme word before the secret, so a copied
    // example with a real key in place of the placeholder works, where a bare secret is 401.
    authentication: {
      securitySchemes: {
        ApiKey: { value: 'Api-Key YOUR_API_KEY' },
        EmbedToken: { value: 'Embed-Token YOUR_EMBED_TOKEN' },
        ServiceAuthToken: { value: 'YOUR_SERVICE_JWT' },
      },
    },
  }
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(options.title)}</title>
${options.iconUrl ? `    <link rel="icon" href="${escapeHtml(options.iconUrl)}" type="image/svg+xml" />\n` : ''}    <style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
  </head>
  <body>
    <noscript>The API reference needs JavaScript; the document itself is at <a href="${options.specUrl}">${options.specUrl}</a>.</noscript>
    <script id="api-reference" data-url="${options.specUrl}" data-configuration="${escapeHtml(JSON.stringify(configuration))}"></script>
    <script src="${options.scriptUrl}"></script>
  </body>
</html>
`
}
