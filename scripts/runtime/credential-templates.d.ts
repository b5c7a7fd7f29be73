// Types of credential-templates.js (plain CommonJS so the n8n Docker image can run it with bare node).

export interface N8nCredential {
  id: string;
  name: string;
  type: string;
  data: Record<string, unknown>;
}

export function renderCredentialTemplate(template: unknown, env: NodeJS.ProcessEnv, file: string): N8nCredential;
export function loadCredentialTemplates(dirs: string[], env: NodeJS.ProcessEnv): N8nCredential[];
