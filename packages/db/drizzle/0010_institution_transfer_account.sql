ALTER TABLE "institutions" ADD COLUMN "transfer_bank" text;--> statement-breakpoint
ALTER TABLE "institutions" ADD COLUMN "transfer_account_number" text;--> statement-breakpoint
ALTER TABLE "institutions" ADD COLUMN "transfer_account_holder" text;