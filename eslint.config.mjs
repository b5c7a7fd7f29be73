import tseslint from 'typescript-eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.runtime/**', 'scripts/runtime/*/node_modules/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // n8n's community-node rules for every node and every credential.
  {
    files: ['nodes/**/*.ts'],
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    rules: { ...n8nNodesBase.configs.community.rules, ...n8nNodesBase.configs.nodes.rules },
  },
  {
    files: ['credentials/**/*.ts'],
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    rules: {
      ...n8nNodesBase.configs.community.rules,
      ...n8nNodesBase.configs.credentials.rules,
      // "Only applicable to nodes in the main repository": a community credential links a full URL.
      'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
    },
  },
);
