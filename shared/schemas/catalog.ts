import { z } from 'zod';
import { idSchema, pageSchema } from './common.js';

/** Agent summary inside a QA rule (source 2.2). */
export const agentSummarySchema = z
  .strictObject({
    name: z.string(),
    agentId: z.string().min(1),
    status: z.enum(['Live', 'Testing', 'Disabled']),
  })
  .meta({ id: 'AgentSummary' });

export const qaRuleSchema = z
  .strictObject({
    qaRuleId: idSchema,
    workspaceId: idSchema,
    ruleName: z.string(),
    ruleDescription: z.string(),
    agents: z.array(agentSummarySchema),
    evaluationCriteria: z.string(),
    expectedValue: z.boolean(),
  })
  .meta({ id: 'QaRule' });
export type QaRule = z.infer<typeof qaRuleSchema>;

export const qaIssueSchema = z
  .strictObject({
    qaIssueId: idSchema,
    qaRuleId: idSchema,
    workspaceId: idSchema,
    agentId: z.string().min(1),
    callId: z.string().min(1),
    channel: z.enum(['chat', 'voice']),
    result: z.enum(['Success', 'Fail']),
    remarks: z.string(),
    qaRuleSnapshot: qaRuleSchema,
  })
  .meta({ id: 'QaIssue' });
export type QaIssue = z.infer<typeof qaIssueSchema>;

const insightSchema = z.strictObject({
  insightName: z.string(),
  insightInstructions: z.string(),
  dataType: z.string(),
  options: z.array(z.string()),
});

const webhookSchema = z.strictObject({
  webhookId: z.string(),
  name: z.string(),
  url: z.url(),
  secret: z.string().meta({ description: 'Signing secret; returned in the listing, as the source describes' }),
  events: z.array(z.string()),
});

const agentSettingsSchema = z
  .strictObject({
    language: z.string(),
    aiStartsConversation: z.boolean(),
    backgroundSound: z.string(),
    globalPrompt: z.string(),
    remindersIntervalDuration: z.number(),
    remindersLimit: z.number(),
    endCallOnSilenceDuration: z.number(),
    maxCallDuration: z.number(),
    llmModel: z.string(),
    llmTemperature: z.number(),
    llmTopP: z.number(),
    llmTopK: z.number(),
    voiceId: z.string(),
    voiceModelId: z.string(),
    ttsSpeed: z.number(),
    ttsTemperature: z.number(),
    ttsVolume: z.number(),
    aiStartsSpeakingPlan: z.number(),
    aiStopsSpeakingPlan: z.number(),
    ivrHangup: z.boolean(),
    agentTimezone: z.string(),
    autoVolumeNormalization: z.boolean(),
    backgroundNoiseFilter: z.boolean(),
    echoCancellation: z.boolean(),
    enablePostConversationAnalysis: z.boolean(),
    postConversationAnalysisLlmModel: z.string(),
    postConversationAnalysis: z.array(insightSchema),
    webhooks: z.array(webhookSchema),
  })
  .partial()
  .meta({ id: 'AgentSettings' });

/** voice_transfer_call is the one tool type the source shows; others keep their own fields. */
export const transferToolSchema = z.strictObject({
  type: z.literal('voice_transfer_call'),
  nodeId: z.string().optional(),
  toolName: z.string().optional(),
  instruction: z.string().optional(),
  transferToRouting: z.string().optional(),
  transferTo: z.string().optional(),
  extensionNumber: z.string().optional(),
  transferSettings: z
    .strictObject({
      transferType: z.string(),
      ringingDuration: z.number(),
      waitForParticipantAnswer: z.boolean(),
      enableWhisperMessage: z.boolean(),
      whisperMessage: z.string(),
      whisperMessageType: z.string(),
      enableThreeWayMessage: z.boolean(),
      threeWayMessage: z.string(),
      threeWayMessageType: z.string(),
      customHeaders: z.record(z.string(), z.unknown()),
    })
    .partial()
    .optional(),
}).meta({ id: 'VoiceTransferCallTool', description: 'A call transfer tool: its fields are those of the source description, and no other.' });

/**
 * A tool of another type, for the OpenAPI document: the source shows neither
 * those types nor their fields, so they are kept as given.
 */
export const otherToolSchema = z
  .looseObject({ type: z.string().min(1).meta({ not: { const: 'voice_transfer_call' } }) })
  .meta({ id: 'OtherTool', description: 'A tool of a type other than voice_transfer_call; its fields are kept as given.' });

/**
 * A tool: voice_transfer_call is checked field by field; other types keep
 * their own fields. A plain union would report only "Invalid input" for a bad
 * transfer tool, so the transfer schema's own issues are passed through. The
 * document describes it as the union it checks: a closed transfer tool or
 * an open tool of any other type.
 */
const toolSchema = z
  .looseObject({ type: z.string().min(1) })
  .superRefine((tool, ctx) => {
    if (tool.type !== 'voice_transfer_call') return;
    const checked = transferToolSchema.safeParse(tool);
    if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ ...issue, message: issue.message } as never);
  })
  .meta({ id: 'Tool', oneOf: [{ $ref: '#/components/schemas/VoiceTransferCallTool' }, { $ref: '#/components/schemas/OtherTool' }] });

export const agentSchema = z
  .strictObject({
    agentId: idSchema,
    agentName: z.string(),
    instructions: z.string().optional(),
    welcomeMessageType: z.string().optional(),
    welcomeMessage: z.string().optional(),
    agentSettings: agentSettingsSchema.optional(),
    tools: z.array(toolSchema).optional(),
  })
  .meta({ id: 'Agent' });
export type Agent = z.infer<typeof agentSchema>;

export const agentPageSchema = pageSchema(agentSchema, 'AgentPage');
