export default async function groupRoutes(app) {
  app.get('/groups', { schema: { summary: 'Index groups: nodes, indices, tenants, documents and load', tags: ['groups'], response: { 503: { $ref: 'Error#' } } } }, () => app.views.groups());
}
