-- TOTP secrets encrypted at rest (issue 32; domain/totp-secret-box.ts): AES-256-GCM under
-- TOTP_ENCRYPTION_KEY, stored as iv || ciphertext || tag (48 bytes). A 20-byte value is a secret
-- stored before this migration: identity seals every such row at start (encryptPlaintextSecrets),
-- and reads one as plaintext until then.
ALTER TABLE two_factor DROP CONSTRAINT two_factor_secret_check;
ALTER TABLE two_factor ADD CONSTRAINT two_factor_secret_length CHECK (length(secret) IN (20, 48));
