// The pathway diagram of a world: arrivals → steps → exits, each step with its duration and the resource it uses,
// laid out top to bottom by dagre and drawn by React Flow. Selecting a node (click, or Tab to it and Enter) opens its
// form; the diagram is read-only as a drawing (nothing is dragged or connected here: the form edits the world).
import dagre from '@dagrejs/dagre';
import { type Edge, Handle, MarkerType, type Node, type NodeProps, Position, ReactFlow, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef } from 'react';
import { type World, arrivalSummary, describeDuration, humanize, resourceName, stepEdges, stepKindName, stepName } from './model.ts';

const NODE_WIDTH = 210;
const NODE_HEIGHT = 78;

export type Selection = { kind: 'step' | 'arrival'; id: string } | null;

type CardData = { title: string; kind: string; detail: string; resource?: string; tone: string; selected: boolean };

function Card({ data }: NodeProps<Node<CardData>>) {
  return (
    <div className={`world-node tone-${data.tone}${data.selected ? ' is-selected' : ''}`}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <span className="world-node-kind">{data.kind}</span>
      <strong className="world-node-title">{data.title}</strong>
      {data.detail && <span className="world-node-detail">{data.detail}</span>}
      {data.resource && <span className="world-node-resource">{data.resource}</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}
const NODE_TYPES = { card: Card };

function cards(world: World, selection: Selection): Array<{ id: string; data: CardData }> {
  const arrivals = world.arrivals.map((a) => ({
    id: `arrival:${a.id}`,
    data: {
      title: humanize(a.id),
      kind: 'Arrivals',
      detail: arrivalSummary(world, a),
      tone: 'arrival',
      selected: selection?.kind === 'arrival' && selection.id === a.id,
    },
  }));
  const steps = world.steps.map((s) => {
    const resource = s.resource ? resourceName(world, s.resource) : undefined;
    const capacity = world.resources.find((r) => r.id === s.resource)?.capacity;
    const count = typeof capacity === 'number' ? capacity : capacity ? world.settings[capacity.setting]?.value : undefined;
    return {
      id: `step:${s.id}`,
      data: {
        title: stepName(world, s.id),
        kind: stepKindName(s.kind),
        detail: describeDuration(world, s.duration),
        resource: resource ? `${resource}${count !== undefined ? ` (${count})` : ''}` : undefined,
        tone: s.kind,
        selected: selection?.kind === 'step' && selection.id === s.id,
      },
    };
  });
  return [...arrivals, ...steps];
}

function links(world: World): Edge[] {
  const edges: Edge[] = [];
  const stepIds = new Set(world.steps.map((s) => s.id));
  for (const a of world.arrivals) if (stepIds.has(a.to_step)) edges.push({ id: `a:${a.id}`, source: `arrival:${a.id}`, target: `step:${a.to_step}` });
  for (const s of world.steps) {
    stepEdges(world, s).forEach((e, i) => {
      if (!stepIds.has(e.to)) return;
      edges.push({
        id: `s:${s.id}:${i}`,
        source: `step:${s.id}`,
        target: `step:${e.to}`,
        label: e.label,
        style: e.dashed ? { strokeDasharray: '5 4' } : undefined,
      });
    });
  }
  return edges.map((e) => ({ ...e, markerEnd: { type: MarkerType.ArrowClosed }, focusable: false, selectable: false }));
}

/** Top-to-bottom positions from dagre: arrivals first, exits last. */
export function layoutWorld(world: World, selection: Selection): { nodes: Node<CardData>[]; edges: Edge[] } {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 50 });
  graph.setDefaultEdgeLabel(() => ({}));
  const items = cards(world, selection);
  const edges = links(world);
  for (const item of items) graph.setNode(item.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);
  const nodes = items.map((item) => {
    const at = graph.node(item.id);
    return {
      id: item.id,
      type: 'card',
      data: item.data,
      position: { x: at.x - NODE_WIDTH / 2, y: at.y - NODE_HEIGHT / 2 },
      ariaLabel: `${item.data.kind}: ${item.data.title}${item.data.detail ? `, ${item.data.detail}` : ''}${item.data.resource ? `, uses ${item.data.resource}` : ''}`,
      draggable: false,
      connectable: false,
    };
  });
  return { nodes, edges };
}

export function WorldDiagram({ world, selection, onSelect }: { world: World; selection: Selection; onSelect?(selection: Selection): void }) {
  const { nodes, edges } = useMemo(() => layoutWorld(world, selection), [world, selection]);
  // the whole pathway stays in view when the screen turns or narrows
  const box = useRef<HTMLDivElement>(null);
  const flow = useRef<ReactFlowInstance<Node<CardData>, Edge> | null>(null);
  useEffect(() => {
    if (!box.current) return;
    const observer = new ResizeObserver(() => void flow.current?.fitView({ padding: 0.1 }));
    observer.observe(box.current);
    return () => observer.disconnect();
  }, []);
  const select = (id: string) => {
    const [kind, name] = id.split(/:(.*)/s) as ['step' | 'arrival', string];
    onSelect?.({ kind, id: name });
  };
  return (
    <div className="world-diagram" data-testid="world-diagram" ref={box}>
      <ReactFlow
        onInit={(instance) => {
          flow.current = instance;
        }}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={{ padding: 0.1 }}
        minZoom={0.2}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={!!onSelect}
        nodesFocusable={!!onSelect}
        edgesFocusable={false}
        zoomOnScroll={false}
        preventScrolling={false}
        panOnScroll={false}
        onNodeClick={(_event, node) => select(node.id)}
        onNodesChange={(changes) => {
          // keyboard selection (Tab to a node, Enter) arrives as a selection change
          const chosen = changes.find((c) => c.type === 'select' && c.selected);
          if (chosen && 'id' in chosen) select(chosen.id);
        }}
        proOptions={{ hideAttribution: true }}
        ariaLabelConfig={{ 'node.a11yDescription.default': 'Press Enter to edit this step.' }}
      />
    </div>
  );
}
