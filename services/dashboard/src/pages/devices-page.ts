import type { DeviceView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

export interface DeviceDraft {
  serialNumber: string;
  name: string;
  catalogEntryId: string;
  firmwareVersion: string;
}

export interface DevicesPageData {
  devices: DeviceView[];
  catalogUnavailable: boolean;
  draft?: DeviceDraft;
}

function catalogCell(device: DeviceView): SafeHtml {
  if (device.catalogEntry) return html`${device.catalogEntry.brand} ${device.catalogEntry.model}`;
  return device.catalogEntryId === null ? html`` : html`entry ${device.catalogEntryId}`;
}

function deviceTable(devices: DeviceView[]): SafeHtml {
  if (devices.length === 0) return html`<p>No devices are registered to your account yet.</p>`;
  return html`<table class="devices"><thead><tr><th>Name</th><th>Serial number</th><th>Catalog entry</th><th>Firmware</th><th>Registered</th></tr></thead>
<tbody>${devices.map(
    (d) => html`<tr><td>${d.name}</td><td><code>${d.serialNumber}</code></td><td>${catalogCell(d)}</td><td>${d.firmwareVersion ?? ''}</td><td>${formatTime(d.registeredAt)}</td></tr>`,
  )}</tbody></table>`;
}

export function devicesPage(chrome: Chrome, data: DevicesPageData): SafeHtml {
  const draft = data.draft;
  return layout(
    'Devices',
    chrome,
    html`<section><h2>Your devices</h2>
${data.catalogUnavailable ? html`<p class="warning">The catalog cannot be reached right now, so catalog details are missing below.</p>` : ''}
${deviceTable(data.devices)}</section>
<section><h2>Register a device</h2>
<form method="post" action="/devices" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <label>Serial number <input type="text" name="serialNumber" value="${draft?.serialNumber ?? ''}" required maxlength="64"></label>
  <label>Name <input type="text" name="name" value="${draft?.name ?? ''}" required maxlength="100"></label>
  <label>Catalog entry id (optional) <input type="text" name="catalogEntryId" value="${draft?.catalogEntryId ?? ''}" inputmode="numeric" pattern="[0-9]*"></label>
  <label>Firmware version (optional) <input type="text" name="firmwareVersion" value="${draft?.firmwareVersion ?? ''}" maxlength="32"></label>
  <p class="hint">Serial numbers use letters, digits and . _ : - only. Registering a serial you already registered updates its name (and the entry and firmware, when given).</p>
  <button type="submit">Register device</button>
</form></section>`,
  );
}
