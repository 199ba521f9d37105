package org.tenantlab.nativeruntime;

import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.PluginsLoader;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts one Elasticsearch node in this JVM the way the distribution's bootstrap does, minus the
 * parts that need the distribution's CLI process (server args on stdin, entitlements, bootstrap
 * checks): the tar.gz distribution is not on Maven Central, its server code is.
 *
 * <p>Arguments are node settings as {@code key=value}; {@code path.home} must hold
 * {@code config/}, {@code modules/} and {@code plugins/}.
 */
public final class LabNode {

    private LabNode() {}

    public static void main(String[] args) throws Exception {
        Settings.Builder builder = Settings.builder();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                System.err.println("error: node setting '" + arg + "' is not key=value");
                System.exit(2);
            }
            builder.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Settings input = builder.build();
        String home = input.get("path.home");
        if (home == null) {
            System.err.println("error: path.home=... is required");
            System.exit(2);
        }

        LogConfigurator.registerErrorListener();
        // Settings parsing already logs, so the ES logging provider must exist before it
        LogConfigurator.configureESLogging();
        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            input, Map.of(), Path.of(home).resolve("config"), () -> input.get("node.name"));
        LogConfigurator.setNodeName(Node.NODE_NAME_SETTING.get(environment.settings()));
        LogConfigurator.configure(environment, true);

        PluginsLoader plugins = PluginsLoader.createPluginsLoader(
            PluginsLoader.loadModulesBundles(environment.modulesDir(), false),
            PluginsLoader.loadPluginsBundles(environment.pluginsDir(), false),
            Map.of());
        Node node = new Node(environment, plugins);

        // The JVM would exit once main returns and only daemon threads are left; this latch is
        // the non-daemon thread that keeps the node alive until SIGTERM runs the shutdown hook.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.prepareForClose();
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "lab-node-shutdown"));
        Thread keepAlive = new Thread(() -> {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lab-node-keepalive");
        keepAlive.setDaemon(false);
        keepAlive.start();

        try {
            node.start();
        } catch (Throwable t) {
            // Without this the keep-alive thread would leave a JVM running with no node in it
            t.printStackTrace();
            System.exit(1);
        }
    }
}
