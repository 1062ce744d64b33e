// The queues at resources: first in, first out, or by priority value.
import { STATE_WAITING } from '../engineLayout.ts';

export class FifoQueue {
  entities = new Int32Array(256);
  tokens = new Int32Array(256);
  head = 0;
  size = 0;

  /** sequence -1 puts the entity first in line (an interrupted service); otherwise last. */
  push(entity: number, token: number, _priority: number, sequence: number): void {
    if (this.size === this.entities.length) this.grow();
    const mask = this.entities.length - 1;
    if (sequence === -1) this.head = (this.head - 1) & mask;
    const slot = sequence === -1 ? this.head : (this.head + this.size) & mask;
    this.entities[slot] = entity;
    this.tokens[slot] = token;
    this.size++;
  }

  /** Next live entity, skipping entries left by reneging; -1 when none. */
  pop(entityToken: Int32Array, entityState: Int32Array): number {
    const mask = this.entities.length - 1;
    while (this.size > 0) {
      const entity = this.entities[this.head]!;
      const token = this.tokens[this.head]!;
      this.head = (this.head + 1) & mask;
      this.size--;
      if (entityState[entity] === STATE_WAITING && entityToken[entity] === token) return entity;
    }
    return -1;
  }

  grow(): void {
    const size = this.entities.length * 2;
    const entities = new Int32Array(size);
    const tokens = new Int32Array(size);
    const mask = this.entities.length - 1;
    for (let k = 0; k < this.size; k++) {
      entities[k] = this.entities[(this.head + k) & mask]!;
      tokens[k] = this.tokens[(this.head + k) & mask]!;
    }
    this.entities = entities;
    this.tokens = tokens;
    this.head = 0;
  }
}

/** Lower priority value first, then arrival order at the queue. */
export class PriorityQueue {
  priority = new Float64Array(256);
  order = new Float64Array(256);
  entities = new Int32Array(256);
  tokens = new Int32Array(256);
  size = 0;

  push(entity: number, token: number, priority: number, sequence: number): void {
    if (this.size === this.entities.length) this.grow();
    let index = this.size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.priority[parent]! < priority || (this.priority[parent] === priority && this.order[parent]! < sequence)) break;
      this.move(parent, index);
      index = parent;
    }
    this.priority[index] = priority;
    this.order[index] = sequence;
    this.entities[index] = entity;
    this.tokens[index] = token;
  }

  pop(entityToken: Int32Array, entityState: Int32Array): number {
    while (this.size > 0) {
      const entity = this.entities[0]!;
      const token = this.tokens[0]!;
      const size = --this.size;
      if (size > 0) {
        const priority = this.priority[size]!;
        const order = this.order[size]!;
        const lastEntity = this.entities[size]!;
        const lastToken = this.tokens[size]!;
        let index = 0;
        for (;;) {
          let child = 2 * index + 1;
          if (child >= size) break;
          const right = child + 1;
          if (
            right < size &&
            (this.priority[right]! < this.priority[child]! || (this.priority[right] === this.priority[child] && this.order[right]! < this.order[child]!))
          )
            child = right;
          if (priority < this.priority[child]! || (priority === this.priority[child] && order < this.order[child]!)) break;
          this.move(child, index);
          index = child;
        }
        this.priority[index] = priority;
        this.order[index] = order;
        this.entities[index] = lastEntity;
        this.tokens[index] = lastToken;
      }
      if (entityState[entity] === STATE_WAITING && entityToken[entity] === token) return entity;
    }
    return -1;
  }

  move(from: number, to: number): void {
    this.priority[to] = this.priority[from]!;
    this.order[to] = this.order[from]!;
    this.entities[to] = this.entities[from]!;
    this.tokens[to] = this.tokens[from]!;
  }

  grow(): void {
    const size = this.entities.length * 2;
    const copy = <T extends Float64Array | Int32Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.priority = copy(this.priority, (n) => new Float64Array(n));
    this.order = copy(this.order, (n) => new Float64Array(n));
    this.entities = copy(this.entities, (n) => new Int32Array(n));
    this.tokens = copy(this.tokens, (n) => new Int32Array(n));
  }
}
