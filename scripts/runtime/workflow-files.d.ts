// Types of workflow-files.js (plain CommonJS so the n8n Docker image can run it with bare node).

export interface WorkflowFile {
  id: string;
  name: string;
  file: string;
  /** Has a trigger node other than the manual trigger, so it can be activated. */
  triggered: boolean;
  /** Activated by the stack (false until then). */
  active: boolean;
  /** The ids of the workflows it calls (activated before it). */
  calls: string[];
}

export function isActivatableTrigger(nodeType: string): boolean;
/** Every workflow file of the folders, each after the workflows it calls. */
export function readWorkflowFiles(dirs: string[]): WorkflowFile[];
