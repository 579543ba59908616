import type { DeviceView } from '@acs/contracts';
import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';
import { catalogPicker, type CatalogResults } from './catalog-picker.js';
import { pickerScriptElement } from './picker-script.js';

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
  /** The picker's search text and what it found. */
  q: string;
  results: CatalogResults;
}

const NOTHING = html`<span class="hint" aria-label="none">—</span>`;

function catalogCell(device: DeviceView): SafeHtml {
  if (device.catalogEntry) return html`${device.catalogEntry.brand} ${device.catalogEntry.model}`;
  return device.catalogEntryId === null ? NOTHING : html`entry ${device.catalogEntryId}`;
}

/** A table on a wide screen; on a phone each row becomes a block of labelled lines (CSS only). */
function deviceTable(devices: DeviceView[]): SafeHtml {
  if (devices.length === 0) return html`<p>No devices are registered to your account yet.</p>`;
  return html`<table class="devices responsive"><thead><tr><th scope="col">Name</th><th scope="col">Serial number</th><th scope="col">Catalog entry</th><th scope="col">Firmware</th><th scope="col">Registered</th></tr></thead>
<tbody>${devices.map(
    (d) =>
      html`<tr><td data-label="Name">${d.name}</td><td data-label="Serial number"><code>${d.serialNumber}</code></td><td data-label="Catalog entry">${catalogCell(d)}</td><td data-label="Firmware">${d.firmwareVersion ?? NOTHING}</td><td data-label="Registered">${formatTime(d.registeredAt)}</td></tr>`,
  )}</tbody></table>`;
}

const FIELDS = ['serialNumber', 'name', 'firmwareVersion'] as const;

export function devicesPage(chrome: Chrome, data: DevicesPageData): SafeHtml {
  const draft = data.draft;
  const errors = chrome.fieldErrors;
  const focused = firstInvalid(FIELDS, errors);
  return layout(
    'Devices',
    chrome,
    html`<section><h2>Your devices</h2>
${data.catalogUnavailable ? html`<p class="warning">The catalog cannot be reached right now, so catalog details are missing below.</p>` : ''}
${deviceTable(data.devices)}</section>
<section><h2>Register a device</h2>
<form method="post" action="/devices" class="stacked">
  ${csrfField(chrome.csrfToken)}
  ${textField({ label: 'Serial number', name: 'serialNumber', value: draft?.serialNumber ?? '', attributes: html`required maxlength="64"`, hint: 'Letters, digits and . _ : - only. Registering a serial you already registered updates its name (and the entry and firmware, when given).' }, errors, focused)}
  ${textField({ label: 'Name', name: 'name', value: draft?.name ?? '', attributes: html`required maxlength="100"` }, errors, focused)}
  ${textField({ label: 'Firmware version (optional)', name: 'firmwareVersion', value: draft?.firmwareVersion ?? '', attributes: html`maxlength="32"` }, errors, focused)}
  ${catalogPicker({ q: data.q, chosen: draft?.catalogEntryId ?? '', results: data.results, ...(errors?.catalogEntryId ? { error: errors.catalogEntryId } : {}) })}
  <button type="submit" name="action" value="register">Register device</button>
</form></section>`,
    pickerScriptElement(),
  );
}
