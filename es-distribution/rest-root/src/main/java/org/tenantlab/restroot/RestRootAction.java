package org.tenantlab.restroot;

import org.apache.lucene.util.Version;
import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.node.Node;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import static org.elasticsearch.rest.RestRequest.Method.GET;
import static org.elasticsearch.rest.RestRequest.Method.HEAD;

/** The document the distribution answers on {@code GET /}: name, cluster, version, tagline. */
public class RestRootAction extends BaseRestHandler {

    private final String nodeName;
    private final Supplier<ClusterService> clusterService;

    RestRootAction(Settings settings, Supplier<ClusterService> clusterService) {
        this.nodeName = Node.NODE_NAME_SETTING.get(settings);
        this.clusterService = clusterService;
    }

    @Override
    public String getName() {
        return "tenantlab_rest_root_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(GET, "/"), new Route(HEAD, "/"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        ClusterState state = clusterService.get().state();
        Build build = Build.current();
        return channel -> {
            XContentBuilder body = channel.newBuilder();
            body.startObject()
                .field("name", nodeName)
                .field("cluster_name", state.getClusterName().value())
                .field("cluster_uuid", state.metadata().clusterUUID())
                .startObject("version")
                .field("number", build.qualifiedVersion())
                .field("build_flavor", build.flavor())
                .field("build_type", "maven-central")
                .field("build_hash", build.hash())
                .field("build_date", build.date())
                .field("build_snapshot", build.isSnapshot())
                .field("lucene_version", Version.LATEST.toString())
                .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                .endObject()
                .field("tagline", "You Know, for Search")
                .endObject();
            channel.sendResponse(new RestResponse(RestStatus.OK, body));
        };
    }
}
