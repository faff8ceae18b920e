CREATE TABLE "institution_notification_settings" (
	"institution_id" integer PRIMARY KEY NOT NULL,
	"disabled_kinds" text[] DEFAULT '{}'::text[] NOT NULL,
	"from_address" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"channel" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_preferences_pkey" PRIMARY KEY("user_id","kind","channel")
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"locale" text DEFAULT 'id' NOT NULL,
	"time_zone" text DEFAULT 'Asia/Jakarta' NOT NULL,
	"quiet_start_minute" smallint,
	"quiet_end_minute" smallint,
	"whatsapp_phone" text,
	"phone_confirmed_at" timestamp with time zone,
	"confirmation_code_hash" text,
	"confirmation_code_expires_at" timestamp with time zone,
	"confirmation_tries" integer DEFAULT 0 NOT NULL,
	"whatsapp_opt_in" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_settings_locale" CHECK ("notification_settings"."locale" in ('id', 'en')),
	CONSTRAINT "notification_settings_quiet_hours" CHECK (("notification_settings"."quiet_start_minute" is null) = ("notification_settings"."quiet_end_minute" is null) and coalesce("notification_settings"."quiet_start_minute", 0) between 0 and 1439 and coalesce("notification_settings"."quiet_end_minute", 0) between 0 and 1439)
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"user_id" text NOT NULL,
	"institution_id" integer,
	"kind" text NOT NULL,
	"channel" text NOT NULL,
	"data" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"provider_message_id" text,
	"send_after" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "notifications_state" CHECK ("notifications"."state" in ('pending', 'sent', 'failed', 'skipped')),
	CONSTRAINT "notifications_channel" CHECK ("notifications"."channel" in ('email', 'whatsapp'))
);
--> statement-breakpoint
ALTER TABLE "institution_notification_settings" ADD CONSTRAINT "institution_notification_settings_institution_id_institutions_id_fk" FOREIGN KEY ("institution_id") REFERENCES "public"."institutions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_institution_id_institutions_id_fk" FOREIGN KEY ("institution_id") REFERENCES "public"."institutions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_key_channel" ON "notifications" USING btree ("key","channel");--> statement-breakpoint
CREATE INDEX "notifications_user_created_idx" ON "notifications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "notifications_created_idx" ON "notifications" USING btree ("created_at");