package org.tenantlab.analysis;

import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.el.GreekLowerCaseFilter;
import org.apache.lucene.analysis.ga.IrishLowerCaseFilter;
import org.apache.lucene.analysis.tr.TurkishLowerCaseFilter;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.NormalizingTokenFilterFactory;

/** `lowercase` filter, usable in normalizers: language (greek, irish, turkish) or none. */
final class LowercaseTokenFilterFactory extends AbstractTokenFilterFactory implements NormalizingTokenFilterFactory {

    private final String language;

    LowercaseTokenFilterFactory(IndexSettings indexSettings, Environment env, String name, Settings settings) {
        super(name);
        this.language = settings.get("language");
        if (language != null && !language.equalsIgnoreCase("greek") && !language.equalsIgnoreCase("irish")
            && !language.equalsIgnoreCase("turkish")) {
            throw new IllegalArgumentException("language [" + language + "] not support for lower case");
        }
    }

    @Override
    public TokenStream create(TokenStream in) {
        if (language == null) {
            return new LowerCaseFilter(in);
        }
        return switch (language.toLowerCase(java.util.Locale.ROOT)) {
            case "greek" -> new GreekLowerCaseFilter(in);
            case "irish" -> new IrishLowerCaseFilter(in);
            default -> new TurkishLowerCaseFilter(in);
        };
    }
}
