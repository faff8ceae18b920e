ALTER TABLE "certificates" ALTER COLUMN "status_entry" SET DEFAULT lms_next_status_entry();--> statement-breakpoint
ALTER TABLE "certificates" ALTER COLUMN "status_entry" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "certificates_status_entry_key" ON "certificates" USING btree ("status_entry");--> statement-breakpoint
CREATE INDEX "certificates_revoked_status_idx" ON "certificates" USING btree ("status_entry") WHERE revoked_at is not null;