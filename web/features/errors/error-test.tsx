import { useState } from 'react';
import { Checkbox, Label, Radio, RadioGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { ApiError, NetworkError } from '../../lib/api';
import { userErrorMessage } from '../../lib/http-errors';
import { ERROR_KINDS, ErrorDisplay, type ErrorKind } from '../../components/ui/error-display';

const SAMPLE_RESUME = { participantId: 'AB12CD34', preCount: 57, mainCount: 0 };

/** Sample failures of every class the HTTP mapping distinguishes. */
const HTTP_SAMPLES = [
  ['400', new ApiError(400, 'invalid', 'validation_failed', 'invalid')],
  ['404', new ApiError(404, 'missing', 'not_found', 'missing')],
  ['500', new ApiError(500, 'Internal server error', 'internal_error', 'Internal server error')],
  ['503', new ApiError(503, null, null, 'HTTP 503: Service Unavailable')],
  ['network', new NetworkError(new TypeError('Failed to fetch'))],
  ['unexpected', new Error('boom')],
] as const;

/** /error-test: pick an error kind and see the error display exactly as participants would. */
export function ErrorTestPicker() {
  const { t } = useTranslation();
  const [kind, setKind] = useState<ErrorKind>('dataset_type');
  const [withResume, setWithResume] = useState(false);
  const [retried, setRetried] = useState(0);

  return (
    <div className="page error-test-page">
      <h1>{t('errors.errorTest.title')}</h1>
      <p>{t('errors.errorTest.description')}</p>
      <Card>
        <RadioGroup
          value={kind}
          onChange={(value) => {
            setKind(value as ErrorKind);
            setRetried(0);
          }}
          className="radio-group"
        >
          <Label>{t('errors.errorTest.pickerLabel')}</Label>
          {ERROR_KINDS.map((k) => (
            <Radio key={k} value={k} className="radio">
              {t(`errors.errorTest.kinds.${k}`)}
            </Radio>
          ))}
        </RadioGroup>
        <Checkbox isSelected={withResume} onChange={setWithResume} className="checkbox">
          {t('errors.errorTest.withResume')}
        </Checkbox>
      </Card>

      <Card>
        <ErrorDisplay
          kind={kind}
          resume={withResume ? SAMPLE_RESUME : null}
          onRetry={() => setRetried((n) => n + 1)}
        />
        {retried > 0 ? (
          <p className="notice notice-info" data-testid="retried">
            {t('errors.errorTest.retried')} ({retried})
          </p>
        ) : null}
      </Card>

      <Card title={t('errors.errorTest.httpTitle')}>
        <dl className="kv http-samples">
          {HTTP_SAMPLES.map(([name, error]) => (
            <div key={name} data-sample={name}>
              <dt>{t(`errors.errorTest.httpCases.${name}`)}</dt>
              <dd>{userErrorMessage(t, error)}</dd>
            </div>
          ))}
        </dl>
      </Card>
    </div>
  );
}
