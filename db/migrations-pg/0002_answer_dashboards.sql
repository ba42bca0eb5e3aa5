ALTER TABLE "workbooks" ADD COLUMN "embed_tenant_id" integer;--> statement-breakpoint
ALTER TABLE "workbooks" ADD CONSTRAINT "workbooks_embed_tenant_id_embed_tenants_id_fk" FOREIGN KEY ("embed_tenant_id") REFERENCES "public"."embed_tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workbooks_embed_tenant" ON "workbooks" USING btree ("embed_tenant_id");