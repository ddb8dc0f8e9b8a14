package org.fts.goa;

import java.util.List;

/**
 * The group's object references as a replica makes them now: their version (FT-CORBA's object_group_ref_version,
 * carried back to clients as {@code FT_GROUP_VERSION}) and the replicas' IIOP endpoints in their profiles, in order.
 * {@link GroupPOA#referenceVersion()}; over JMX as the replica's {@code GroupVersion} attribute.
 */
public record GroupReference(long version, List<String> endpoints) {
    public GroupReference {
        endpoints = List.copyOf(endpoints);
    }
}
