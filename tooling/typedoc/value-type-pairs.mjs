// A TypeDoc plugin: one page per name where a value and a type share it. The
// bindings' C enums are each a `const X` (the named constants) and a
// `type X = number` (a value of the enum), and a deprecated alias is a
// `const` and a `type` too (program's ClosedError); TypeDoc gives each
// declaration its own page, so every such name had two. The plugin folds the
// type alias into the value's page (a paragraph saying what the type is, with
// the alias's summary and any block tag the value lacks) and drops the
// alias's page. Both declarations are one TypeScript symbol, so references to
// the type keep their link: they now go to the value's page.
import { Comment, Converter, ReflectionKind } from 'typedoc';

/** The kinds a type alias folds into: values that have a page of their own. */
const VALUE = ReflectionKind.Variable | ReflectionKind.Function | ReflectionKind.Class;

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const container of [project, ...project.getReflectionsByKind(ReflectionKind.SomeModule)]) {
      const children = /** @type {import('typedoc').ContainerReflection} */ (container).children ?? [];
      const values = new Map(children.filter((child) => child.kindOf(VALUE)).map((child) => [child.name, child]));
      for (const alias of children.filter((child) => child.kindOf(ReflectionKind.TypeAlias))) {
        const value = values.get(alias.name);
        if (value === undefined) continue;
        foldTypeAlias(alias, value);
        project.removeReflection(alias);
      }
    }
  });
}

/**
 * Adds to the value's comment what its same-named type alias documents.
 * @param {import('typedoc').DeclarationReflection} alias
 * @param {import('typedoc').DeclarationReflection} value
 */
function foldTypeAlias(alias, value) {
  const parameters = alias.typeParameters?.length ? `<${alias.typeParameters.map((p) => p.name).join(', ')}>` : '';
  /** @type {import('typedoc').CommentDisplayPart[]} */
  const paragraph = [
    { kind: 'text', text: '\n\nThe type ' },
    { kind: 'code', text: `\`${alias.name}${parameters}\`` },
    { kind: 'text', text: ' is ' },
    { kind: 'code', text: `\`${alias.type?.toString() ?? 'unknown'}\`` },
    { kind: 'text', text: '.' },
  ];
  const aliasComment = alias.comment;
  if (aliasComment && aliasComment.summary.length > 0)
    paragraph.push({ kind: 'text', text: ' ' }, ...Comment.cloneDisplayParts(aliasComment.summary));
  value.comment ??= new Comment();
  value.comment.summary.push(...paragraph);
  for (const tag of aliasComment?.blockTags ?? [])
    if (!value.comment.getTag(tag.tag)) value.comment.blockTags.push(tag.clone());
  for (const modifier of aliasComment?.modifierTags ?? []) value.comment.modifierTags.add(modifier);
}
