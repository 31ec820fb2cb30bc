import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";

/**
 * How many selections (fields, fragment spreads, inline fragments) each operation of a document expands to once every
 * fragment spread is replaced by its fragment. A spread repeated in a chain of fragments doubles the expansion at
 * every link, so a document of a few hundred tokens can stand for billions of selections; graphql-js' standard rules
 * and the cost rule walk the expansion, and would spend minutes on it. This count walks each fragment once (memoized),
 * so it costs the document's length whatever the expansion, and runs before any other rule.
 *
 * A fragment that spreads itself (directly or through others) counts its cycle once: the standard rule NoFragmentCycles
 * refuses such a document afterwards, on a document already known to be small.
 */
export function expandedSelections(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const sizes = new Map<string, number>();
  const entered = new Set<string>();

  const fragmentSize = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    // Unknown fragments and cycles: the standard rules refuse them; counted as nothing here.
    if (!fragment || entered.has(name)) return 0;
    entered.add(name);
    const size = setSize(fragment.selectionSet);
    sizes.set(name, size);
    return size;
  };

  const setSize = (set: SelectionSetNode | undefined): number => {
    if (!set) return 0;
    let size = 0;
    for (const selection of set.selections) {
      size += 1;
      if (selection.kind === Kind.FRAGMENT_SPREAD) size += fragmentSize(selection.name.value);
      else size += setSize(selection.selectionSet);
    }
    return size;
  };

  let largest = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) largest = Math.max(largest, setSize(definition.selectionSet));
  }
  // A fragment no operation uses is walked too by the standard rules (NoUnusedFragments reports it).
  for (const name of fragments.keys()) largest = Math.max(largest, fragmentSize(name));
  return largest;
}
