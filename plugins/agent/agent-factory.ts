import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai'
import type { LlmConfig } from '../../lib/config'
import type { AgentFactory, AgentTurn } from '../chat/run/agent'
import { createScriptedAgent, scriptFromConfig } from '../chat/run/scripted-agent'
import { createAnalystAgent } from './analyst-agent'
import type { AnalystTools } from './analyst-tools'
import { withCallMetrics, type LlmCallMetrics } from './llm-metrics'
import { createOfflineAnalystModel } from './offline/offline-model'

export interface AgentFactoryOptions {
  /** An OpenAI-compatible endpoint; unset, the offline analyst answers. */
  llm: LlmConfig | undefined
  /** Pause between the offline analyst's tokens. */
  analystDelayMs: number
  /** The semantic tools bound to one turn. */
  tools(turn: AgentTurn): AnalystTools
  /** Replaces the language model (tests). */
  languageModel?: LanguageModelV3
  /** Where the language model's calls are counted and timed. */
  metrics?: LlmCallMetrics
  /** The whole turn's time limit (`CHAT_TURN_TIMEOUT_MS`; the chat layer enforces it too). */
  turnTimeoutMs?: number
}

/** The language model of the analyst: the configured OpenAI-compatible endpoint, or the built-in offline analyst. */
export function analystLanguageModel(
  options: Pick<AgentFactoryOptions, 'llm' | 'analystDelayMs' | 'languageModel'>,
): LanguageModelV3 {
  if (options.languageModel) return options.languageModel
  if (options.llm) {
    const provider = createOpenAICompatible({
      name: 'llm',
      baseURL: options.llm.baseUrl,
      apiKey: options.llm.apiKey,
      includeUsage: true,
    })
    // Models served without a reasoning field (DeepSeek R1, Qwen 3 on Ollama or vLLM) write their reasoning into the
    // text between <think> tags: it is reasoning, shown in development mode only, never part of the answer.
    return wrapLanguageModel({
      model: provider.chatModel(options.llm.model),
      middleware: extractReasoningMiddleware({ tagName: 'think' }),
    })
  }
  return createOfflineAnalystModel({ delayMs: options.analystDelayMs })
}

/** Picks the agent for an agent row: the scripted agent for `kind: scripted`, else the analyst. */
export function createAgentFactory(options: AgentFactoryOptions): AgentFactory {
  const languageModel = analystLanguageModel(options)
  const analyst = createAnalystAgent({
    languageModel: options.metrics ? withCallMetrics(languageModel, options.metrics) : languageModel,
    tools: options.tools,
    timeoutMs: options.turnTimeoutMs,
    // A real model learns the deployment's cubes and members from its prompt; the offline analyst from its tools.
    describeModel: options.llm !== undefined,
  })
  return (agent) => (agent.kind === 'scripted' ? createScriptedAgent(scriptFromConfig(agent.config)) : analyst)
}
