/** A device as stored; `ownerUserId` never leaves the service (a client sees only its own devices). */
export interface Device {
  id: number;
  ownerUserId: number;
  serialNumber: string;
  name: string;
  catalogEntryId: number | null;
  firmwareVersion: string | null;
  registeredAt: Date;
}
