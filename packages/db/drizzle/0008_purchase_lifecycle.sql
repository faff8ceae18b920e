ALTER TYPE "public"."purchase_status" ADD VALUE 'cancelled';--> statement-breakpoint
ALTER TYPE "public"."purchase_status" ADD VALUE 'rejected';--> statement-breakpoint
ALTER TYPE "public"."purchase_status" ADD VALUE 'expired';--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "closed_by" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "close_reason" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_closed_by_users_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "purchases_pending_expiry_idx" ON "purchases" USING btree ("expires_at") WHERE "purchases"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "purchases_pending_created_idx" ON "purchases" USING btree ("created_at","id") WHERE "purchases"."status" = 'pending';--> statement-breakpoint
-- Hand-written: purchases pending before this migration expire as a new one would by default
-- (PURCHASE_PENDING_HOURS, 72), counted from when they started.
UPDATE "purchases" SET "expires_at" = "created_at" + interval '72 hours' WHERE "status" = 'pending';
