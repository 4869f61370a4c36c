/**
 * The order tritonserver ranks classes in: indices sorted by value, largest first, with
 * `std::sort` of GNU libstdc++ (introsort: median-of-three quicksort down to runs of 16, heapsort
 * past a depth of 2·⌊log2 n⌋, then insertion sort). That sort is not stable, so equal values come
 * out in the order its steps leave them; this module takes the same steps, so that ties rank as
 * they do on tritonserver, byte for byte. Comparisons are `>` on the values (`NaN` compares false
 * both ways, as in C++); every loop is bounded here, where C++ would read past the array.
 *
 * @module
 */

/** Values to rank: numbers, or bigints for 64-bit integers. */
export type ClassValues = ArrayLike<number> | ArrayLike<bigint>;

/** Runs shorter than this are left to the final insertion sort (libstdc++'s threshold). */
const THRESHOLD = 16;

/**
 * The indices of `values`, largest value first, in the order tritonserver ranks them.
 * @param values one batch row of an output.
 * @returns a permutation of `0 .. values.length - 1`.
 */
export function classOrder(values: ClassValues): Int32Array {
  const v = values as ArrayLike<number>; // `>` compares bigints alike
  const n = v.length;
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  if (n < 2) return idx;
  /** Whether the class at position a ranks before the one at b (`probs[a] > probs[b]`). */
  const before = (a: number, b: number) => v[a] > v[b];
  const swap = (a: number, b: number) => {
    const t = idx[a];
    idx[a] = idx[b];
    idx[b] = t;
  };

  const medianToFirst = (result: number, a: number, b: number, c: number) => {
    const ia = idx[a], ib = idx[b], ic = idx[c];
    if (before(ia, ib)) {
      if (before(ib, ic)) swap(result, b);
      else if (before(ia, ic)) swap(result, c);
      else swap(result, a);
    } else if (before(ia, ic)) swap(result, a);
    else if (before(ib, ic)) swap(result, c);
    else swap(result, b);
  };

  const partition = (first: number, last: number, pivot: number): number => {
    const p = idx[pivot];
    for (;;) {
      while (first < last && before(idx[first], p)) first++;
      last--;
      while (last > pivot && before(p, idx[last])) last--;
      if (!(first < last)) return first;
      swap(first, last);
      first++;
    }
  };

  // Heapsort of [first, last), as std::make_heap then std::sort_heap with the same comparison.
  const adjust = (first: number, hole: number, len: number, value: number) => {
    const top = hole;
    let child = hole;
    while (child < ((len - 1) >> 1)) {
      child = 2 * (child + 1);
      if (before(idx[first + child], idx[first + child - 1])) child--;
      idx[first + hole] = idx[first + child];
      hole = child;
    }
    if ((len & 1) === 0 && child === ((len - 2) >> 1)) {
      child = 2 * (child + 1);
      idx[first + hole] = idx[first + child - 1];
      hole = child - 1;
    }
    let parent = (hole - 1) >> 1;
    while (hole > top && before(idx[first + parent], value)) {
      idx[first + hole] = idx[first + parent];
      hole = parent;
      parent = (hole - 1) >> 1;
    }
    idx[first + hole] = value;
  };
  const heapSort = (first: number, last: number) => {
    const len = last - first;
    for (let parent = (len - 2) >> 1; parent >= 0; parent--) {
      adjust(first, parent, len, idx[first + parent]);
    }
    for (let end = last - 1; end - first > 0; end--) {
      const value = idx[end];
      idx[end] = idx[first];
      adjust(first, 0, end - first, value);
    }
  };

  const introsort = (first: number, last: number, depth: number) => {
    while (last - first > THRESHOLD) {
      if (depth === 0) {
        heapSort(first, last);
        return;
      }
      depth--;
      medianToFirst(first, first + 1, first + ((last - first) >> 1), last - 1);
      const cut = partition(first + 1, last, first);
      introsort(cut, last, depth);
      last = cut;
    }
  };

  // Moves idx[i] back past the elements it ranks before; `start` bounds the walk.
  const insert = (i: number, start: number) => {
    const value = idx[i];
    let j = i;
    while (j > start && before(value, idx[j - 1])) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = value;
  };
  const insertionSort = (first: number, last: number) => {
    for (let i = first + 1; i < last; i++) {
      const value = idx[i];
      if (before(value, idx[first])) {
        idx.copyWithin(first + 1, first, i);
        idx[first] = value;
      } else insert(i, first);
    }
  };

  introsort(0, n, 2 * (31 - Math.clz32(n))); // 2·⌊log2 n⌋
  if (n > THRESHOLD) {
    insertionSort(0, THRESHOLD);
    for (let i = THRESHOLD; i < n; i++) insert(i, 0);
  } else insertionSort(0, n);
  return idx;
}
