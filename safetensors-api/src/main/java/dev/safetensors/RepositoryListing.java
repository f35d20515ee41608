package dev.safetensors;

import java.util.List;
import java.util.Objects;

/**
 * The checkpoints a repository location holds, found with as few requests as the storage allows.
 *
 * @param repository  the repository's name for output, such as {@code acme/model} or {@code datasets/acme/data}
 * @param commit      the commit the asked revision resolved to (every file is pinned to it), or the revision as asked
 *                    when the storage reported none
 * @param checkpoints the checkpoints found: the root's first, then subfolders'; empty when there are none
 * @param cost        the requests made to list them
 */
public record RepositoryListing(String repository, String commit, List<RepositoryCheckpoint> checkpoints,
                                SourceStatistics cost) {
    /**
     * Copies the list and checks that no component is {@code null}.
     *
     * @param repository the repository's name for output
     * @param commit the resolved commit
     * @param checkpoints the checkpoints found
     * @param cost the requests made
     */
    public RepositoryListing {
        Objects.requireNonNull(repository, "repository");
        Objects.requireNonNull(commit, "commit");
        checkpoints = List.copyOf(checkpoints);
        Objects.requireNonNull(cost, "cost");
    }
}
