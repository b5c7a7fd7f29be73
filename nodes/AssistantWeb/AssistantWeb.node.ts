// Assistant Web: search the web with no API key (DuckDuckGo, or SearXNG) and read a page as Markdown, rendering it in
// the browser service when it needs JavaScript. Every request goes through the outbound guard (docs/WEB.md).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantWebV1 } from './v1/AssistantWebV1.node';

export class AssistantWeb extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Web',
      name: 'assistantWeb',
      icon: 'file:assistantWeb.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Search the web and read pages (HTML, JavaScript pages, PDFs) for the assistant',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantWebV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
