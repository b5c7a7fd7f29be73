// Types of workflow-files.js (plain CommonJS so the n8n Docker image can run it with bare node).

export interface WorkflowFile {
  id: string;
  name: string;
  file: string;
  /** Has a trigger node other than the manual trigger, so it can be activated. */
  triggered: boolean;
  /** Activated by the stack (false until then). */
  active: boolean;
}

export function isActivatableTrigger(nodeType: string): boolean;
export function readWorkflowFiles(dirs: string[]): WorkflowFile[];
