export default async function groupRoutes(app, { allocator }) {
  app.get('/groups', { schema: { summary: 'Index groups: nodes, indices, tenants, documents and load', tags: ['groups'], response: { 503: { $ref: 'Error#' } } } }, () => allocator.groups());
}
