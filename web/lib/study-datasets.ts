/**
 * The datasets administrators added on the dashboard, which this build of the SPA does not carry:
 * read from the Worker when the page opens (and again after an administrator adds or enables
 * one), registered beside the built-in ones with their names in every loaded language (their
 * columns' texts come with the screens that show cases, web/i18n), so every screen treats them alike.
 */
import type { i18n } from 'i18next';
import { datasetIndexTranslations, registerDatasets, setEnabledAdded } from '../../worker/schemas/dataset-index';
import { LANGUAGES } from '../../worker/schemas/study-config';
import { api, unwrap } from './api';

export async function loadStudyDatasets(instance: i18n): Promise<void> {
  const { added, enabled } = await unwrap(await api.api.datasets.$get());
  const fresh = registerDatasets(added);
  for (const lng of LANGUAGES) {
    if (fresh.length > 0 && instance.hasResourceBundle(lng, 'translation')) {
      instance.addResourceBundle(lng, 'translation', datasetIndexTranslations(lng, fresh), true, true);
    }
  }
  setEnabledAdded(enabled);
}
