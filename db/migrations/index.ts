import foundation from './0001_foundation.sql' with { type: 'text' }
import chat from './0002_chat.sql' with { type: 'text' }
import embed from './0003_embed.sql' with { type: 'text' }
import management from './0004_management.sql' with { type: 'text' }
import hotPaths from './0005_performance.sql' with { type: 'text' }
import answerDashboards from './0006_answer_dashboards.sql' with { type: 'text' }
import leaseEpoch from './0007_lease_epoch.sql' with { type: 'text' }

/**
 * Every migration, in order. They are imported as text so `bun build --compile` embeds them in the binary.
 * Append new ones; never edit one that has shipped.
 */
export const migrations: readonly { tag: string; sql: string }[] = [
  { tag: '0001_foundation', sql: foundation },
  { tag: '0002_chat', sql: chat },
  { tag: '0003_embed', sql: embed },
  { tag: '0004_management', sql: management },
  { tag: '0005_performance', sql: hotPaths },
  { tag: '0006_answer_dashboards', sql: answerDashboards },
  { tag: '0007_lease_epoch', sql: leaseEpoch },
]
