import { AgentError, type Agent, type AgentFactory } from '../chat/agent'
import { createScriptedAgent, scriptFromConfig } from '../chat/scripted-agent'

/** Picks the agent for an agent row: the scripted agent for `kind: scripted`, else the analyst. */
export function createAgentFactory(): AgentFactory {
  const unavailable: Agent = {
    // eslint-disable-next-line require-yield
    async *run() {
      throw new AgentError('The analyst is not available on this server yet')
    },
  }
  return (agent) => (agent.kind === 'scripted' ? createScriptedAgent(scriptFromConfig(agent.config)) : unavailable)
}
