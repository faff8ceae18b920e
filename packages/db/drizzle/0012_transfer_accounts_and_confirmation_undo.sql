ALTER TABLE "institutions" ADD COLUMN "transfer_bank" text;--> statement-breakpoint
ALTER TABLE "institutions" ADD COLUMN "transfer_account_number" text;--> statement-breakpoint
ALTER TABLE "institutions" ADD COLUMN "transfer_account_holder" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "confirmation_undone_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "confirmation_undone_by" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_confirmation_undone_by_users_id_fk" FOREIGN KEY ("confirmation_undone_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;