-- Dashboards built from chat answers by an embed tenant's creator-mode sessions: their workbook names the tenant, so
-- only that tenant's sessions see them, and deleting the tenant deletes them.
ALTER TABLE workbooks ADD COLUMN embed_tenant_id INTEGER REFERENCES embed_tenants(id) ON DELETE CASCADE;
CREATE INDEX workbooks_embed_tenant ON workbooks (embed_tenant_id);
