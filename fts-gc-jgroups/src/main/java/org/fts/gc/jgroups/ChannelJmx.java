package org.fts.gc.jgroups;

import java.lang.management.ManagementFactory;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.fts.order.OrderStatsMBean;
import org.jgroups.JChannel;
import org.jgroups.jmx.JmxConfigurator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's MBeans: JGroups' channel and protocols ({@code jgroups:type=channel,cluster="<group>/<member>"}) and
 * the total order's counters ({@link OrderStatsMBean}, {@code jgroups:type=fts-order,cluster=...}). A failure to
 * register is logged, never fatal.
 */
final class ChannelJmx {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelJmx.class);

    private final String name;
    private final boolean channelRegistered;
    private final ObjectName stats;

    private ChannelJmx(String name, boolean channelRegistered, ObjectName stats) {
        this.name = name;
        this.channelRegistered = channelRegistered;
        this.stats = stats;
    }

    static ChannelJmx register(JChannel channel, String name, OrderStatsMBean order) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        boolean registered = false;
        try {
            JmxConfigurator.registerChannel(channel, server, "jgroups", name, true);
            registered = true;
        } catch (Exception e) {
            LOG.warn("{}: JGroups channel not registered over JMX: {}", name, e.toString());
        }
        ObjectName on = null;
        try {
            on = new ObjectName("jgroups:type=fts-order,cluster=" + ObjectName.quote(name));
            server.registerMBean(order, on);
        } catch (Exception e) {
            LOG.warn("{}: total-order counters not registered over JMX: {}", name, e.toString());
            on = null;
        }
        return new ChannelJmx(name, registered, on);
    }

    void unregister(JChannel channel) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        if (channelRegistered) {
            try {
                JmxConfigurator.unregisterChannel(channel, server, "jgroups", name);
            } catch (Exception e) {
                LOG.debug("{}: JGroups MBeans already gone: {}", name, e.toString());
            }
        }
        if (stats != null) {
            try {
                server.unregisterMBean(stats);
            } catch (Exception e) {
                LOG.debug("{}: total-order MBean already gone: {}", name, e.toString());
            }
        }
    }
}
