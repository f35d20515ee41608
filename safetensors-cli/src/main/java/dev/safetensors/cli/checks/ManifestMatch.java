package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.PrefixSelection;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * {@code verify --manifest FILE LOCATION...}: the files the listed locations hold, matched one to one with the
 * manifest's entries. A file is matched by its location as the manifest records it ({@code manifest} writes each
 * file's location as it listed or expanded it); local paths are compared absolute and normalized, so
 * {@code ./models/} finds the entries {@code models/} recorded. A matched file is verified against its entry; a
 * file with no entry fails the {@link Check#MANIFEST} check ({@link ErrorCode#NOT_IN_MANIFEST}, invalid). Once every
 * file was checked, each entry that lies in a listed folder or prefix (one level, or below with {@code --recursive}),
 * whose name the selection takes, and that no file matched, is reported missing ({@code NOT_FOUND}, error, as
 * when the manifest alone names a file that is gone). Entries outside the listed locations are left alone.
 * Thread-safe: files are checked on the batch's workers.
 */
public final class ManifestMatch implements FileCheck {
    private final Map<String, ManifestEntry> entries = new LinkedHashMap<>();
    private final Set<String> matched = ConcurrentHashMap.newKeySet();
    private final FileCheck verify;
    private final SourceArguments selection;

    /**
     * @param manifest  the manifest's entries, in its order
     * @param selection the selection options, which also say which entries the listed locations should hold
     * @param opener    opens the sources
     * @param limits    the validation policy
     */
    public ManifestMatch(List<ManifestEntry> manifest, SourceArguments selection, SourceOpener opener, Limits limits) {
        for (ManifestEntry e : manifest) {
            entries.putIfAbsent(Target.key(Location.parse(e.source())), e);
        }
        this.selection = selection;
        this.verify = new DigestCheck(opener, limits, f -> entries.get(Target.key(f.location())).expected(), false,
                ProgressBar.disabled());
    }

    @Override
    public SourceResult check(Target.File file) {
        String key = Target.key(file.location());
        if (!entries.containsKey(key)) {
            return HeaderCheck.start(file).fail(Failure.of(Status.INVALID, ErrorCode.NOT_IN_MANIFEST, "the manifest"
                    + " has no entry for this file (added since it was made, or the manifest records other locations)",
                    Check.MANIFEST)).build();
        }
        matched.add(key);
        return verify.check(file);
    }

    /**
     * @param targets the targets, after the last one was checked
     * @return a result for each entry the listed folders and prefixes should hold and no file matched
     */
    public List<SourceResult> missing(TargetStream targets) {
        List<Location> prefixes = targets.listedPrefixes();
        List<NameGlob> include = selection.includes();
        List<NameGlob> exclude = selection.excludes();
        List<SourceResult> missing = new ArrayList<>();
        for (Map.Entry<String, ManifestEntry> e : entries.entrySet()) {
            if (matched.contains(e.getKey())) {
                continue;
            }
            Location where = Location.parse(e.getValue().source());
            String name = PrefixSelection.name(where);
            if (!NameGlob.any(include, name) || NameGlob.any(exclude, name)
                    || prefixes.stream().noneMatch(p -> holds(p, where))) {
                continue;
            }
            missing.add(SourceResult.builder(where.display(), SourceResult.Kind.FILE).fail(Failure.of(Status.ERROR,
                    ErrorCode.NOT_FOUND, "the manifest names this file, but no listed folder or prefix holds it",
                    Check.MANIFEST)).build());
        }
        return missing;
    }

    /** Whether a listing of {@code prefix} (one level, or below with {@code --recursive}) takes {@code file}. */
    private boolean holds(Location prefix, Location file) {
        if (prefix.isLocal() != file.isLocal()) {
            return false;
        }
        if (prefix.isLocal()) {
            Path folder = absolute(prefix);
            Path path = absolute(file);
            if (folder == null || path == null) {
                return false;
            }
            return selection.recursive ? path.startsWith(folder) && !path.equals(folder)
                    : folder.equals(path.getParent());
        }
        String p = prefix.display().endsWith("/") ? prefix.display() : prefix.display() + "/";
        String f = file.display();
        return f.startsWith(p) && f.length() > p.length() && (selection.recursive || f.indexOf('/', p.length()) < 0);
    }

    private static Path absolute(Location location) {
        try {
            return location.path().toAbsolutePath().normalize();
        } catch (RuntimeException e) {
            // not a path this platform can spell: compared as written
            return null;
        }
    }
}
