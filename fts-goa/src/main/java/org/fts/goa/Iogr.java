package org.fts.goa;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.ParsedIOR;
import org.omg.CORBA.ORB;
import org.omg.IIOP.ProfileBody_1_1;
import org.omg.IIOP.ProfileBody_1_1Helper;
import org.omg.IIOP.Version;
import org.omg.IOP.IOR;
import org.omg.IOP.IORHelper;
import org.omg.IOP.TAG_INTERNET_IOP;
import org.omg.IOP.TaggedComponent;
import org.omg.IOP.TaggedProfile;

/**
 * Turns a reference to this replica into an interoperable object group reference (IOGR): one IIOP 1.2
 * profile per replica endpoint, all with the same object key (identical at every replica), each carrying
 * {@code TAG_FT_GROUP}. A client ORB without FTS tries the profiles in turn, so it reaches a live replica.
 */
final class Iogr {
    private Iogr() {
    }

    static org.omg.CORBA.Object build(ORB orb, org.omg.CORBA.Object local, List<String> endpoints, String group,
                                      byte[] objectId, long version) {
        IOR ior = new ParsedIOR((org.jacorb.orb.ORB) orb, orb.object_to_string(local)).getIOR();
        ProfileBody_1_1 mine = null;
        for (TaggedProfile p : ior.profiles) {
            if (p.tag == TAG_INTERNET_IOP.value) {
                CDRInputStream in = new CDRInputStream(orb, p.profile_data);
                in.openEncapsulatedArray();
                mine = ProfileBody_1_1Helper.read(in);
                break;
            }
        }
        if (mine == null) {
            throw new org.omg.CORBA.INTERNAL("FTS: the local reference has no IIOP profile");
        }
        List<TaggedComponent> components = new ArrayList<>(List.of(mine.components));
        components.add(new TaggedComponent(FtConstants.TAG_FT_GROUP,
                new FtGroupComponent(group, groupId(objectId), version).encode()));
        TaggedComponent[] comps = components.toArray(new TaggedComponent[0]);
        List<TaggedProfile> profiles = new ArrayList<>();
        if (endpoints.isEmpty()) {
            profiles.add(profile(orb, new ProfileBody_1_1(new Version((byte) 1, (byte) 2), mine.host, mine.port,
                    mine.object_key, comps)));
        }
        for (String e : endpoints) {
            int colon = e.lastIndexOf(':');
            short port = (short) Integer.parseInt(e.substring(colon + 1));
            profiles.add(profile(orb, new ProfileBody_1_1(new Version((byte) 1, (byte) 2), e.substring(0, colon),
                    port, mine.object_key, comps)));
        }
        CDROutputStream out = new CDROutputStream(orb);
        out.beginEncapsulatedArray();
        IORHelper.write(out, new IOR(ior.type_id, profiles.toArray(new TaggedProfile[0])));
        return orb.string_to_object("IOR:" + HexFormat.of().formatHex(out.getBufferCopy()));
    }

    private static TaggedProfile profile(ORB orb, ProfileBody_1_1 body) {
        CDROutputStream out = new CDROutputStream(orb);
        out.beginEncapsulatedArray();
        ProfileBody_1_1Helper.write(out, body);
        return new TaggedProfile(TAG_INTERNET_IOP.value, out.getBufferCopy());
    }

    /** A stable 64-bit object group id for an object id: the same at every replica. */
    static long groupId(byte[] objectId) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(objectId)).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
