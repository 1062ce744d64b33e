// The tool registry's body (spec: Versioning — tool registry version): each tool with what it needs and its endpoints.
import { Type } from 'typebox';
import { TOOL_REGISTRY_VERSION } from '../authoring/tools.ts';

export const Tool = Type.Object({
  name: Type.String(),
  summary: Type.String(),
  label: Type.String(),
  needs: Type.Object({ approval: Type.String(), credits: Type.String(), inputs: Type.Array(Type.String()) }),
  endpoints: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), purpose: Type.String() })),
});

export const ToolRegistry = Type.Object({ version: Type.Literal(TOOL_REGISTRY_VERSION), data: Type.Array(Tool) });
