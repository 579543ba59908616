import { html, type SafeHtml } from './html.js';

/**
 * The answer to a link followed from another site. The browser withheld our SameSite=Strict
 * cookies on that navigation, so we cannot tell who is visiting; this page loads the same address
 * again at once, now from our own page, and the browser sends the cookies (signed-in visitors
 * stay signed in, new ones get a session their forms can use). A plain link is there too.
 */
export function arrivalPage(target: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0;url=${target}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audio platform account</title>
<link rel="stylesheet" href="/assets/dashboard.css">
</head>
<body><main><p><a href="${target}">Continue to your audio platform account</a></p></main></body>
</html>
`;
}
