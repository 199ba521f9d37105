package org.tenantlab.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.synonym.SolrSynonymParser;
import org.apache.lucene.analysis.synonym.SynonymFilter;
import org.apache.lucene.analysis.synonym.SynonymGraphFilter;
import org.apache.lucene.analysis.synonym.SynonymMap;
import org.apache.lucene.analysis.synonym.WordnetSynonymParser;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexService.IndexCreationContext;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.CharFilterFactory;
import org.elasticsearch.index.analysis.CustomAnalyzer;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;

import java.io.Reader;
import java.io.StringReader;
import java.util.List;
import java.util.function.Function;

/**
 * `synonym` and `synonym_graph` filters: rules inline (`synonyms`) or in a file under the config
 * folder (`synonyms_path`), Solr format or `format: wordnet`, `expand` (true), `lenient` (false).
 * As in analysis-common, the rules are analysed by the analyzer's own chain up to this filter
 * (its tokenizer, char filters and the filters before it), so "T-Shirt" in a rule meets the same
 * tokens as "t-shirt" in a document.
 */
final class SynonymTokenFilterFactory extends AbstractTokenFilterFactory {

    private final Environment env;
    private final Settings settings;
    private final boolean graph;
    private final boolean expand;
    private final boolean lenient;
    private final String format;

    SynonymTokenFilterFactory(Environment env, String name, Settings settings, boolean graph) {
        super(name);
        this.env = env;
        this.settings = settings;
        this.graph = graph;
        this.expand = settings.getAsBoolean("expand", true);
        this.lenient = settings.getAsBoolean("lenient", false);
        this.format = settings.get("format", "");
        if (!settings.hasValue("synonyms") && !settings.hasValue("synonyms_path")) {
            throw new IllegalArgumentException("synonym requires either `synonyms` or `synonyms_path` to be configured");
        }
    }

    @Override
    public TokenStream create(TokenStream in) {
        throw new IllegalStateException("the synonym filter is made for its analysis chain first (getChainAwareTokenFilterFactory)");
    }

    @Override
    public TokenFilterFactory getChainAwareTokenFilterFactory(
        IndexCreationContext context,
        TokenizerFactory tokenizer,
        List<CharFilterFactory> charFilters,
        List<TokenFilterFactory> previousTokenFilters,
        Function<String, TokenFilterFactory> allFilters
    ) {
        Analyzer analyzer = new CustomAnalyzer(
            tokenizer,
            charFilters.toArray(new CharFilterFactory[0]),
            previousTokenFilters.stream().map(TokenFilterFactory::getSynonymFilter).toArray(TokenFilterFactory[]::new)
        );
        SynonymMap synonyms = build(analyzer);
        String name = name();
        boolean asGraph = graph;
        return new TokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream in) {
                if (synonyms.fst == null) {
                    return in;
                }
                return asGraph ? new SynonymGraphFilter(in, synonyms, false) : new SynonymFilter(in, synonyms, false);
            }

            @Override
            public TokenFilterFactory getSynonymFilter() {
                // rules are not expanded by an earlier synonym filter of the same chain
                return IDENTITY_FILTER;
            }
        };
    }

    private SynonymMap build(Analyzer analyzer) {
        try (Reader rules = rules()) {
            SynonymMap.Parser parser = "wordnet".equalsIgnoreCase(format)
                ? new WordnetSynonymParser(true, expand, analyzer)
                : new SolrSynonymParser(true, expand, analyzer);
            parser.parse(rules);
            return parser.build();
        } catch (Exception e) {
            if (lenient) {
                return emptyMap();
            }
            throw new IllegalArgumentException("failed to build synonyms: " + e.getMessage(), e);
        }
    }

    private Reader rules() {
        if (settings.hasValue("synonyms")) {
            StringBuilder sb = new StringBuilder();
            for (String line : Analysis.getWordList(env, settings, "synonyms")) {
                sb.append(line).append(System.lineSeparator());
            }
            return new StringReader(sb.toString());
        }
        return Analysis.getReaderFromFile(env, settings.get("synonyms_path"), "synonyms");
    }

    private static SynonymMap emptyMap() {
        try {
            return new SynonymMap.Builder().build();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
