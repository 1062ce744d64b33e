// The pathway diagram of a world: arrivals → steps → exits, each step with its duration and the resource it uses,
// laid out top to bottom by dagre and drawn by React Flow. Selecting a node (click, or Tab to it and Enter) opens its
// form; in the editor, dragging from a step's lower edge to another step connects them (the step's form does the
// same by keyboard). A variant's changed steps are highlighted.
import dagre from '@dagrejs/dagre';
import { type Edge, Handle, MarkerType, type Node, type NodeProps, Position, ReactFlow, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef } from 'react';
import { type World, arrivalName, arrivalSummary, describeDuration, resourceName, stepEdges, stepKindName, stepName } from './model.ts';

const NODE_WIDTH = 210;
const NODE_HEIGHT = 78;

export type Selection = { kind: 'step' | 'arrival'; id: string } | null;

type CardData = { title: string; kind: string; detail: string; resource?: string; tone: string; selected: boolean; changed: boolean; connectable: boolean };

function Card({ data }: NodeProps<Node<CardData>>) {
  return (
    <div className={`world-node tone-${data.tone}${data.selected ? ' is-selected' : ''}${data.changed ? ' is-changed' : ''}`}>
      <Handle type="target" position={Position.Top} isConnectable={data.connectable && data.tone !== 'arrival'} />
      <span className="world-node-kind">
        {data.kind}
        {data.changed ? <span className="world-node-changed"> · changed in this variant</span> : null}
      </span>
      <strong className="world-node-title">{data.title}</strong>
      {data.detail && <span className="world-node-detail">{data.detail}</span>}
      {data.resource && <span className="world-node-resource">{data.resource}</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={data.connectable && data.tone !== 'exit'} />
    </div>
  );
}
const NODE_TYPES = { card: Card };

type Marks = { selection: Selection; changed: Set<string>; connectable: boolean };

function cards(world: World, { selection, changed, connectable }: Marks): Array<{ id: string; data: CardData }> {
  const arrivals = world.arrivals.map((a) => ({
    id: `arrival:${a.id}`,
    data: {
      title: arrivalName(world, a.id),
      kind: 'Arrivals',
      detail: arrivalSummary(world, a),
      tone: 'arrival',
      selected: selection?.kind === 'arrival' && selection.id === a.id,
      changed: changed.has(`arrival:${a.id}`),
      connectable,
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
        changed: changed.has(`step:${s.id}`),
        connectable,
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
export function layoutWorld(world: World, marks: Marks): { nodes: Node<CardData>[]; edges: Edge[] } {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 50 });
  graph.setDefaultEdgeLabel(() => ({}));
  const items = cards(world, marks);
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
      ariaLabel: `${item.data.kind}: ${item.data.title}${item.data.detail ? `, ${item.data.detail}` : ''}${item.data.resource ? `, uses ${item.data.resource}` : ''}${item.data.changed ? ', changed in this variant' : ''}`,
      // React Flow's selection follows the form's: Enter on a node not open selects it again
      selected: item.data.selected,
      draggable: false,
      connectable: marks.connectable,
    };
  });
  return { nodes, edges };
}

const NO_CHANGES = new Set<string>();

/** Keeps the whole pathway in view: when the screen turns or narrows, and when steps come or go (`shape` changes). */
function useWholePathwayInView(shape: string) {
  const box = useRef<HTMLDivElement>(null);
  const flow = useRef<ReactFlowInstance<Node<CardData>, Edge> | null>(null);
  useEffect(() => {
    if (!box.current) return;
    const observer = new ResizeObserver(() => void flow.current?.fitView({ padding: 0.1 }));
    observer.observe(box.current);
    return () => observer.disconnect();
  }, []);
  // a step added, or a variant with steps of its own shown: fitted once they are drawn
  useEffect(() => {
    if (!shape) return;
    // two frames: React Flow measures a new node in the frame after it is drawn
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => void flow.current?.fitView({ padding: 0.1 }));
    });
    return () => cancelAnimationFrame(frame);
  }, [shape]);
  return { box, flow };
}

export function WorldDiagram({
  world,
  selection,
  onSelect,
  changed = NO_CHANGES,
  onConnect,
}: {
  world: World;
  selection: Selection;
  onSelect?(selection: Selection): void;
  changed?: Set<string>;
  onConnect?(from: { kind: 'step' | 'arrival'; id: string }, to: string): void;
}) {
  const connectable = !!onConnect;
  const { nodes, edges } = useMemo(() => layoutWorld(world, { selection, changed, connectable }), [world, selection, changed, connectable]);
  const { box, flow } = useWholePathwayInView(nodes.map((node) => node.id).join(' '));
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
        nodesConnectable={connectable}
        onConnect={(connection) => {
          const [kind, id] = connection.source.split(/:(.*)/s) as ['step' | 'arrival', string];
          const [, to] = connection.target.split(/:(.*)/s) as [string, string];
          if (to) onConnect?.({ kind, id }, to);
        }}
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
